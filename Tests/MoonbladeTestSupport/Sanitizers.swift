#if canImport(Glibc)
import Glibc
#endif

/// How many times slower this test process runs than a plain debug build: 10 under ThreadSanitizer or
/// AddressSanitizer (found by their runtime's entry point), 1 otherwise. Time bounds in tests are
/// multiplied by it, so that `.ci/run`'s sanitized run measures the same thing as the plain one, and
/// the heaviest tests do less work, so that they do not load both cores for minutes.
///
/// `MOONBLADE_TEST_SLOWDOWN=10 swift test` rehearses a sanitized run's scaled-down tests in a plain build.
public let sanitizerSlowdown: Int = {
    if let rehearsed = getenv("MOONBLADE_TEST_SLOWDOWN").flatMap({ Int(String(cString: $0)) }), rehearsed >= 1 {
        return rehearsed
    }
    let handle = dlopen(nil, RTLD_NOW)
    defer { if let handle { dlclose(handle) } }
    let sanitized = ["__tsan_init", "__asan_init"].contains { (name: String) in dlsym(handle, name) != nil }
    return sanitized ? 10 : 1
}()

/// Whether this test process runs under AddressSanitizer, whose redzones make each stack frame several
/// times larger: a test that recurses as deep as the product allows (a state nested to its limit) can
/// overflow a thread's 8 MiB there and only there.
public let addressSanitized: Bool = {
    let handle = dlopen(nil, RTLD_NOW)
    defer { if let handle { dlclose(handle) } }
    return dlsym(handle, "__asan_init") != nil
}()

extension Duration {
    /// This bound, stretched by ``sanitizerSlowdown`` in a sanitized run.
    public var allowingForSanitizers: Duration { self * sanitizerSlowdown }

    /// How late work that needs a thread of the cooperative pool may end in a full parallel run,
    /// stretched for sanitizers: this machine's pool has two threads, which the other suites'
    /// synchronous Lua (hostile runaways stopped at their limits) hold in turn, so a run that needs
    /// a few milliseconds alone has waited 23 s for one. What such bounds catch (work escaping a
    /// limit, a run never ending) takes minutes or forever.
    public static let poolStarvationAllowance = Duration.seconds(60).allowingForSanitizers
}

extension Int {
    /// This many (rounds, samples, bytes), divided by ``sanitizerSlowdown`` in a sanitized run, at
    /// least 1: the same test on less work. A plain run does all of it.
    public var scaledDownForSanitizers: Int { Swift.max(1, self / sanitizerSlowdown) }

    /// This stride between samples, stretched by ``sanitizerSlowdown`` in a sanitized run: fewer samples.
    public var stretchedForSanitizers: Int { self * sanitizerSlowdown }
}
