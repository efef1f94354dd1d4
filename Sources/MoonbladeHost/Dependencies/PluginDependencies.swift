import Moonblade
import MoonbladeLua

/// The Swift functions a host exposes to Lua side effects as `ctx.deps.<group>.<name>(arguments)`.
///
/// Arguments are decoded from the Lua value the side effect passes, results encoded back, both with
/// the Codable mapping of `LuaEncoder`/`LuaDecoder`. Functions may be synchronous or `async`: either
/// way they run outside the VM while the calling side effect's coroutine is suspended, so a slow one
/// never holds up other plugin code.
///
/// ```swift
/// var dependencies = PluginDependencies()
/// dependencies.expose("storage", "read") { (request: ReadRequest) async throws -> [Todo] in
///     try await storage.read(request.key)
/// }
/// ```
public struct PluginDependencies: Sendable {
    /// Decodes the arguments at `index` now, with the VM held, and returns the work to run later.
    typealias Function = @Sendable (_ stack: LuaStack, _ index: Int32, _ decoder: LuaDecoder) throws -> PendingWork

    private(set) var functions: [String: [String: Function]] = [:]
    /// What each function takes and returns, by group and name, for editor types (nil: nothing).
    private(set) var shapes: [String: [String: (arguments: LuaShape?, result: LuaShape?)]] = [:]

    /// No dependencies yet: add them with `expose`.
    public init() {}

    /// Exposes `body` as `ctx.deps.<group>.<name>(arguments)`, returning a value to Lua.
    public mutating func expose<Arguments: Decodable & Sendable, Result: Encodable & Sendable>(
        _ group: String, _ name: String, _ body: @escaping @Sendable (Arguments) async throws -> Result
    ) {
        define(group, name) { (arguments: Arguments) in { .encodable(try await body(arguments)) } }
        shapes[group, default: [:]][name] = (LuaShape.of(Arguments.self), Self.shape(of: Result.self))
    }

    /// Exposes `body` as `ctx.deps.<group>.<name>(arguments)`, returning nothing to Lua.
    public mutating func expose<Arguments: Decodable & Sendable>(
        _ group: String, _ name: String, _ body: @escaping @Sendable (Arguments) async throws -> Void
    ) {
        define(group, name) { (arguments: Arguments) in
            {
                try await body(arguments)
                return .none
            }
        }
        shapes[group, default: [:]][name] = (LuaShape.of(Arguments.self), nil)
    }

    /// Exposes `body`, which takes no arguments, as `ctx.deps.<group>.<name>()`.
    public mutating func expose<Result: Encodable & Sendable>(
        _ group: String, _ name: String, _ body: @escaping @Sendable () async throws -> Result
    ) {
        functions[group, default: [:]][name] = { _, _, _ in { .encodable(try await body()) } }
        shapes[group, default: [:]][name] = (nil, Self.shape(of: Result.self))
    }

    /// A result's shape when it can be decoded as well (most are); else `any`.
    private static func shape<Result>(of type: Result.Type) -> LuaShape {
        if let decodable = type as? any Decodable.Type { return LuaShape.of(decodable) }
        return .any
    }

    /// Exposes `body` like ``expose(_:_:_:)-(_,_,(Arguments)->Void)``, also given the folder of the
    /// plugin whose code made the call (the first path component of the calling Lua line's file), for
    /// dependencies that must say who used them: the log's `[todo] …`.
    ///
    /// - Parameter shape: what the arguments look like to editor types, when probing `Arguments` cannot
    ///   tell (a custom decoder that takes a string or a table).
    mutating func exposeNamingCaller<Arguments: Decodable & Sendable>(
        _ group: String, _ name: String, shape: LuaShape? = nil,
        _ body: @escaping @Sendable (Arguments, _ plugin: String?) async throws -> Void
    ) {
        functions[group, default: [:]][name] = { stack, index, decoder in
            let arguments = try decoder.decode(Arguments.self, from: stack, at: index)
            let caller = stack.callerLocation(skipping: [SideEffectPrelude.chunkName, LuaStack.awaitChunkName])
            let plugin = caller.flatMap { $0.source.split(separator: "/").first.map(String.init) }
            return {
                try await body(arguments, plugin)
                return .none
            }
        }
        shapes[group, default: [:]][name] = (shape ?? LuaShape.of(Arguments.self), nil)
    }

    /// Decodes the arguments when Lua calls (the VM is held then) and returns the work `work` makes of
    /// them, run when awaited: the work calls the body itself, not through another `async` closure
    /// (each is a task allocation and a check of the task's executor per await).
    private mutating func define<Arguments: Decodable & Sendable>(
        _ group: String, _ name: String, _ work: @escaping @Sendable (Arguments) -> PendingWork
    ) {
        functions[group, default: [:]][name] = { stack, index, decoder in
            work(try decoder.decode(Arguments.self, from: stack, at: index))
        }
    }

    /// One exposed function, as Lua calls it: by its number in ``numbered``.
    struct Entry: Sendable {
        let group: String
        let name: String
        let function: Function
    }

    /// Every exposed function, numbered from 1 in the order of `entries`, and their numbers by group
    /// and name (`{ group = { name = number } }`), from which the Lua prelude builds `ctx.deps`: a
    /// call passes its number, so finding the function costs no string read or hashing.
    var numbered: (entries: [Entry], names: LuaValue) {
        var entries: [Entry] = []
        var names: [LuaValue: LuaValue] = [:]
        for (group, functions) in functions.sorted(by: { $0.key < $1.key }) {
            var numbers: [LuaValue: LuaValue] = [:]
            for (name, function) in functions.sorted(by: { $0.key < $1.key }) {
                entries.append(Entry(group: group, name: name, function: function))
                numbers[.string(name)] = .integer(Int64(entries.count))
            }
            names[.string(group)] = .table(numbers)
        }
        return (entries, .table(names))
    }
}

/// The dependency container of a plugin host's store: what Swift side effects in the same store get.
public final class PluginHostDependencies: SideEffectDependencyContainer {
    /// Dispatches to the store; works from the moment the store starts.
    public let dispatch: AnyDispatch
    /// Reads the store's state.
    public let getState: GetState

    public init(dispatch: @escaping AnyDispatch, getState: @escaping GetState) {
        self.dispatch = dispatch
        self.getState = getState
    }
}
