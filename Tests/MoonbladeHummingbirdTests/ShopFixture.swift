import Foundation
import Hummingbird
import HummingbirdWebSocket
import MoonbladeHost
import MoonbladeHummingbird
import MoonbladeJournal
import MoonbladeTestSupport
import NIOCore

/// A host on a small shop plugin behind the routes, for the tests: `shop.add {n}` (an updater that
/// refuses a non-integer), `shop.count` (a side effect returning the count), `shop.fail`.
struct ShopFixture {
    static let source = """
        return {
          name = "shop", version = 1,
          updaters = {
            add = function(state, p)
              if type(p) ~= "table" or math.type(p.n) ~= "integer" then error("n must be an integer") end
              state.count = (state.count or 0) + p.n
            end,
          },
          side_effects = {
            count = function(ctx, p) return { count = ctx.state().count or 0 } end,
            fail = function(ctx, p) error("nothing to sell") end,
          },
        }
        """

    let plugins = ScratchPlugins()
    let directory: String
    let events = HostEvents()
    let host: PluginHost<JSONValue>
    /// The journal the host records into, kept in memory; nil when made without one.
    let journal: Journal?

    /// The host, recording into a journal in memory when `journaled`.
    init(journaled: Bool = false) throws {
        directory = try plugins.write("shop", Self.source)
        journal = journaled ? try Journal.inMemory() : nil
        if let journal {
            host = try PluginHost<JSONValue>(
                plugins: [directory], journal: journal, initialState: ["count": 0], interceptors: [events.interceptor()])
        } else {
            host = try PluginHost<JSONValue>(
                plugins: [directory], initialState: ["count": 0], interceptors: [events.interceptor()])
        }
    }

    /// An application serving the routes and the devtools page at the root, with `configuration`.
    func application(_ configuration: HostRoutes<JSONValue>.Configuration = .init()) -> some ApplicationProtocol {
        let router = Router(context: BasicWebSocketRequestContext.self)
        let routes = HostRoutes(host, events: events, configuration: configuration)
        routes.add(to: router.group())
        DevtoolsRoutes(routes, journal: journal).add(to: router.group())
        return Application(
            router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    var count: JSONValue? {
        if case .object(let members) = host.state { members["count"] } else { nil }
    }
}

extension ByteBuffer {
    init(json text: String) {
        self.init(string: text)
    }

    /// The body as JSON; null when it is not JSON (which the tests' expectations then show).
    var json: JSONValue {
        (try? JSONValue(json: Array(readableBytesView))) ?? .null
    }
}

extension JSONValue {
    /// A string's text; nil for another value.
    var text: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// An object's members; none for another value.
    var members: [String: JSONValue] {
        if case .object(let members) = self { members } else { [:] }
    }
}
