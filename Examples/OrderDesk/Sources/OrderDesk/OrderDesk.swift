import Foundation
import Logging
import MoonbladeHost
import MoonbladeHummingbird

/// How the order desk sets up its plugin host: the typed state, the archive dependency, the plugins.
public enum OrderDesk {
    /// The example's plugin folders, `Examples/OrderDesk/Plugins/catalog` and `…/orders`.
    public static let pluginDirectories = ["catalog", "orders"].map {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Plugins/\($0)").path
    }

    /// The Swift functions the plugins may call: `ctx.deps.archive.put(order)`.
    public static func dependencies(archive: OrderArchive) -> PluginDependencies {
        var dependencies = PluginDependencies()
        dependencies.expose("archive", "put") { (order: Order) in await archive.put(order) }
        return dependencies
    }

    /// A host on the order desk's plugins, reporting to `events`; a plugin that does not load is in
    /// `loadErrors`.
    public static func host(
        archive: OrderArchive = OrderArchive(), initialState: OrderDeskState = OrderDeskState(),
        events: HostEvents = HostEvents(), logger: Logger = Logger(label: "orderdesk")
    ) throws -> PluginHost<OrderDeskState> {
        try PluginHost<OrderDeskState>(
            plugins: pluginDirectories, initialState: initialState, dependencies: dependencies(archive: archive),
            interceptors: [events.interceptor()], configuration: .init(logger: events.logger(logger)))
    }
}
