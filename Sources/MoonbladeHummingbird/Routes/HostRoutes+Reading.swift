import Hummingbird
import MoonbladeHost

extension HostRoutes {
    /// `GET state`: the state, or the value at `?pointer=`.
    func state(_ request: Request) throws -> Response {
        let pointer = try JSONPointer(request.uri.queryParameters["pointer"].map(String.init) ?? "")
        let state: JSONValue
        do {
            state = try JSONValue(encoding: host.state)
        } catch {
            throw Problem(.internalServerError, title: "state has no JSON form", detail: "\(error)")
        }
        return Response(json: try pointer.value(in: state))
    }

    /// `GET plugins`: the running plugins with their versions and items, and the folders that did not load.
    func plugins() -> Response {
        let running: [JSONValue] = host.plugins.map { plugin in
            [
                "name": .string(plugin.name), "version": .integer(Int64(plugin.version)),
                "updaters": .array(plugin.updaters.map(JSONValue.string)),
                "sideEffects": .array(plugin.sideEffects.map(JSONValue.string)),
            ]
        }
        let refused: [JSONValue] = host.unloadedDirectories.map { .object(["directory": .string($0)]) }
        return Response(json: ["plugins": .array(running), "refused": .array(refused)])
    }

    /// `POST plugins/{name}/reload`: the plugin loaded again from its folder.
    func reload(_ request: Request, _ context: some RequestContext) async throws -> Response {
        try authorize(request)
        let name = context.parameters.get("name") ?? ""
        guard host.plugins.contains(where: { $0.name == name }) else {
            let suggestions = ItemSuggestions.closest(to: name, among: host.plugins.map(\.name))
            throw Problem(
                .notFound, title: "unknown plugin", detail: "no running plugin is named \(name)",
                members: ["plugin": .string(name), "suggestions": .array(suggestions.map(JSONValue.string))])
        }
        do {
            let info = try await host.reload(plugin: name)
            return Response(json: ["name": .string(info.name), "version": .integer(Int64(info.version))])
        } catch {
            var members = errorJSON(error).objectMembers
            members["message"] = nil
            throw Problem(
                .unprocessableContent, title: "reload failed",
                detail: "\(error) (the earlier version keeps running)", members: members)
        }
    }
}
