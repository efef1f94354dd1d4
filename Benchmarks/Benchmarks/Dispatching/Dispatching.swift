import Benchmark

/// What a dispatch costs, native Swift against Lua.
let benchmarks: @Sendable () -> Void = {
    registerUpdaterDispatch()
    registerSideEffectRoundTrips()
}
