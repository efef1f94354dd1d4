/// A draft of the resident state handed to one Lua updater, open until it is finished or abandoned.
///
/// Made by ``LuaResidentState/beginDraft(onto:)``, which pushes the draft itself (what the updater
/// receives as its state) onto the stack.
public final class LuaDraft {
    /// The Lua session table: whether its drafts are writable, the tables the plugin assigned.
    let session: LuaReference

    init(session: LuaReference) {
        self.session = session
    }
}
