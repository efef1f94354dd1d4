import MoonbladeLua

extension PluginVM {
    /// The error of a side effect whose time limit passed while it awaited Swift work, placed at the
    /// plugin line that awaited (or, past a tail call, where the side effect is defined).
    func timeLimitError(_ deadline: LuaDeadline, run number: Int) -> PluginError {
        let run = runs[number]!
        let location =
            run.coroutine.stack.callerLocation(skipping: Prelude.chunkName) ?? definition(of: run.item)
        return PluginError(
            .limit, plugin: pluginName(ofItem: run.item), item: run.item,
            message: "\(deadline.exceededMessage) while awaiting Swift work", location: location)
    }
}
