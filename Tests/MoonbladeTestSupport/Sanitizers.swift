#if canImport(Glibc)
    import Glibc
#endif

/// How many times slower this test process runs than a plain debug build: 10 under ThreadSanitizer or
/// AddressSanitizer (found by their runtime's entry point), 1 otherwise. Time bounds in tests are
/// multiplied by it, so that `.ci/run`'s sanitized run measures the same thing as the plain one.
public let sanitizerSlowdown: Int = {
    let handle = dlopen(nil, RTLD_NOW)
    defer { if let handle { dlclose(handle) } }
    let sanitized = ["__tsan_init", "__asan_init"].contains { (name: String) in dlsym(handle, name) != nil }
    return sanitized ? 10 : 1
}()

extension Duration {
    /// This bound, stretched by ``sanitizerSlowdown`` in a sanitized run.
    public var allowingForSanitizers: Duration { self * sanitizerSlowdown }
}
