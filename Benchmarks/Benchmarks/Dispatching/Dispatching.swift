import Benchmark

/// Issue 11, benchmarks 1 and 4: what a dispatch costs, native Swift against Lua.
let benchmarks: @Sendable () -> Void = {
    registerUpdaterDispatch()
    registerSideEffectRoundTrips()
}
