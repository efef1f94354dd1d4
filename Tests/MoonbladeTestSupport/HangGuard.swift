import Testing

/// A test's time limit that only catches a test that never ends (a dispatch that never completes, a
/// run escaping its limits): five minutes, fifty under a sanitizer, where the tests that carry it take
/// seconds alone and under a minute on a loaded machine. It says nothing about speed: that is for the
/// benchmarks.
private let hangGuardLimit = TimeLimitTrait.Duration.minutes(5 * sanitizerSlowdown)

extension TestTrait where Self == TimeLimitTrait {
    /// A time limit that only catches a test that never ends (see `hangGuardLimit`).
    public static var hangGuard: Self { .timeLimit(hangGuardLimit) }
}

extension SuiteTrait where Self == TimeLimitTrait {
    /// A time limit for each test of the suite that only catches a test that never ends.
    public static var hangGuard: Self { .timeLimit(hangGuardLimit) }
}
