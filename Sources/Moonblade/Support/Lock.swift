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

    /// Creates a lock; a `recursive` one may be taken again by the thread that holds it.
    package init(recursive: Bool = false) {
        guard recursive else {
            pthread_mutex_init(mutex, nil)
            return
        }
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock; pair it with ``unlock()``. Prefer ``withLock(_:)``: these two are for generic
    /// code whose result type would cost a metadata look-up through the closure.
    package func lock() {
        pthread_mutex_lock(mutex)
    }

    /// Gives up the lock taken with ``lock()``.
    package func unlock() {
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` while holding the lock. `body` must not take this lock again, unless it is recursive.
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
