#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutual-exclusion lock over a `pthread_mutex_t`, allocated once.
///
/// `Synchronization.Mutex` would do the same job, but on Linux its futex path is invisible to
/// ThreadSanitizer, which then reports every access it guards as a data race. pthread mutexes are
/// intercepted by TSan and cost the same when uncontended. The guarded values live next to the lock
/// in its owner (not inside a generic wrapper), so generic owners like `Store` reach them without a
/// runtime generic-metadata lookup on every access.
package final class Lock: @unchecked Sendable {
    // @unchecked: the mutex is only used through pthread calls, which are thread-safe.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` while holding the lock. `body` must not take this lock again.
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
