extension PluginHost {
    /// Stops the plugin code running now, and any that starts, until ``endInterrupt()``: Ctrl-C on a
    /// plugin that runs away. Any thread may call it, while a dispatch runs.
    ///
    /// The Lua code of an updater, side effect, rule or reload stops within a check of the limits
    /// (``LuaVM/Configuration/hookInterval`` instructions) with a ``PluginError/Kind/limit`` error,
    /// `interrupted` at the line it was running, which `pcall` cannot swallow; the item fails as it
    /// would at a limit, so an updater changes nothing. A side effect that awaits Swift work stops
    /// when the work answers and its Lua runs again.
    public func interrupt() {
        runtime.interrupter.interrupt()
    }

    /// Lets plugin code run again after ``interrupt()``.
    public func endInterrupt() {
        runtime.interrupter.end()
    }
}
