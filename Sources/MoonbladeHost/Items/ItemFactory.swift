import Moonblade
import MoonbladeLua

/// Why a name and payload from Lua make no store item; the caller places the message.
struct ItemError: Error {
    var message: String
    /// The kind of ``PluginError`` it becomes once placed.
    var kind: PluginError.Kind = .runtime

    /// No item is registered under `name`: the kind a dispatch of that name from Swift fails with.
    static func unknownItem(_ name: String) -> ItemError {
        ItemError(message: "no item named \(name) is registered", kind: .unknownItem)
    }
}

extension PluginRuntime {
    /// The store item that `name` stands for, with the payload at `payloadIndex` of `stack`.
    func makeItem(_ name: String, payloadAt payloadIndex: Int32, of stack: LuaStack) throws(ItemError)
        -> any Dispatchable
    {
        guard let kind = catalog.kind(of: name) else { throw .unknownItem(name) }
        return try makeItem(name, kind: kind, payloadAt: payloadIndex, of: stack)
    }

    /// ``makeItem(_:payloadAt:of:)`` for a name whose kind is already known; a Lua updater handed on
    /// by an interceptor running on `stack` runs on that stack too.
    func makeItem(
        _ name: String, kind: PluginItemKind, payloadAt payloadIndex: Int32, of stack: LuaStack
    ) throws(ItemError) -> any Dispatchable {
        switch kind {
        case .swift(_, let make):
            do throws(ItemError) {
                return try Self.swiftItem(make, payloadAt: payloadIndex, of: stack)
            } catch {
                throw ItemError(message: "\(name): \(error.message)")
            }
        case .luaUpdater(let resolved):
            return LuaItemUpdater(runtime: self, resolved: resolved, payload: try luaPayload(of: name, at: payloadIndex, stack))
        case .luaSideEffect(let resolved):
            return LuaItemSideEffect(
                runtime: self, item: name, resolved: resolved, payload: try luaPayload(of: name, at: payloadIndex, stack),
                readResult: .luaValue)
        }
    }

    /// A registered Swift item (`make` is its ``PluginItemKind/swift(isUpdater:make:)``) decoded from
    /// the payload at `payloadIndex`; a payload that does not decode says where (`payload.value: …`).
    private static func swiftItem(
        _ make: (LuaStack, Int32, LuaDecoder) throws -> any Dispatchable, payloadAt payloadIndex: Int32, of stack: LuaStack
    ) throws(ItemError) -> any Dispatchable {
        do {
            return try make(stack, payloadIndex, LuaDecoder())
        } catch let error as DecodingError {
            throw ItemError(message: LuaDecoder.describe(error, root: "payload"))
        } catch {
            throw ItemError(message: "\(error)")
        }
    }

    /// The registered Swift item `name` made from a Swift `payload` (`make` is its
    /// ``PluginItemKind/swift(isUpdater:make:)``): the payload crosses the VM as Lua's `ctx.dispatch`
    /// would hand it over, so a dispatch by name from Swift decodes it as one from Lua does.
    func makeSwiftItem(
        _ name: String, _ make: (LuaStack, Int32, LuaDecoder) throws -> any Dispatchable, payload: PluginValue
    ) throws(PluginError) -> any Dispatchable {
        let invalid = { (message: String) in
            PluginError(.invalidValue, plugin: pluginName(ofItem: name), item: name, message: message)
        }
        return try withLua { lua throws(PluginError) in
            let stack = lua.stack
            let top = stack.top
            defer { stack.top = top }
            do { try payload.push(onto: stack, encoder: LuaEncoder()) } catch { throw invalid("payload: \(error)") }
            do throws(ItemError) {
                return try Self.swiftItem(make, payloadAt: stack.top, of: stack)
            } catch {
                throw invalid(error.message)
            }
        }
    }

    /// The payload Lua gives `name` at `index`: nothing for nil or no value, else a snapshot.
    func luaPayload(of name: String, at index: Int32, _ stack: LuaStack) throws(ItemError) -> PluginValue {
        switch stack.type(at: index) {
        case .nil, .none:
            return .none
        default:
            do {
                return .lua(try stack.value(at: index, requiringUTF8: true))
            } catch {
                throw ItemError(message: "\(name) payload: \(error.message)")
            }
        }
    }

    /// Refuses a reaction that would go deeper than ``maxCascadeDepth``; `cause` names what reacted.
    func checkCascade(_ cascadeDepth: Int, cause: String) throws(ItemError) {
        guard cascadeDepth > maxCascadeDepth else { return }
        throw ItemError(
            message: "\(cause) stopped: more than \(maxCascadeDepth) reactions in a row "
                + "(a rule or side effect that keeps re-triggering itself?)")
    }
}
