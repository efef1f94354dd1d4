import Moonblade
import MoonbladeLua

/// Why a name and payload from Lua make no store item; the caller places the message.
struct ItemError: Error {
    var message: String
}

extension PluginRuntime {
    /// The store item that `name` stands for, with the payload at `payloadIndex` of `stack`, to be
    /// dispatched `cascadeDepth` reactions down a chain.
    func makeItem(
        _ name: String, payloadAt payloadIndex: Int32, of stack: LuaStack, cascadeDepth: Int, _ vm: PluginVM
    ) throws(ItemError) -> any Dispatchable {
        guard let kind = kind(of: name) else {
            throw ItemError(message: "no item named \(name) is registered")
        }
        if case .swift(_, let make) = kind {
            do {
                return try make(stack, payloadIndex, vm.decoder)
            } catch let error as DecodingError {
                throw ItemError(message: "\(name): \(LuaDecoder.describe(error, root: "payload"))")
            } catch {
                throw ItemError(message: "\(name): \(error)")
            }
        }
        let payload: PluginValue
        do {
            payload = stack.type(at: payloadIndex) == .nil || stack.type(at: payloadIndex) == .none
                ? .none : .lua(try stack.value(at: payloadIndex))
        } catch {
            throw ItemError(message: "\(name) payload: \(error.message)")
        }
        return kind.isUpdater
            ? LuaItemUpdater(runtime: self, item: name, payload: payload, cascadeDepth: cascadeDepth)
            : LuaItemSideEffect<S, LuaValue>(runtime: self, item: name, payload: payload, cascadeDepth: cascadeDepth)
    }

    /// Refuses a reaction that would go deeper than ``maxCascadeDepth``; `cause` names what reacted.
    func checkCascade(_ cascadeDepth: Int, cause: String) throws(ItemError) {
        guard cascadeDepth > maxCascadeDepth else { return }
        throw ItemError(
            message: "\(cause) stopped: more than \(maxCascadeDepth) reactions in a row "
                + "(a rule or side effect that keeps re-triggering itself?)")
    }
}
