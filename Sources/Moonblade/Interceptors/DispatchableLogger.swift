import Logging

/// Katana's logging interceptor: logs every dispatched item through swift-log.
public enum DispatchableLogger {
    /// Returns an interceptor that logs every item the rest of the chain handled, except items whose
    /// exact type is in `blackList`.
    ///
    /// As in Katana, an item is logged once `next` has returned: one that a later interceptor drops is
    /// logged, one that a later interceptor rejects, or an updater that throws, is not (its error
    /// reaches whoever dispatched it).
    ///
    /// - Parameters:
    ///   - blackList: the item types not to log (exact types: subclasses and conformers are logged).
    ///   - logger: where to log; a logger labelled `moonblade.dispatch` by default.
    ///   - level: the level of the log messages; `.info` by default.
    public static func interceptor(
        blackList: [any Dispatchable.Type] = [],
        logger: Logger = Logger(label: "moonblade.dispatch"),
        level: Logger.Level = .info
    ) -> StoreInterceptor {
        let ignoredTypes = Set(blackList.map(ObjectIdentifier.init))
        return { _ in
            { next in
                { dispatchable in
                    try next(dispatchable)
                    if !ignoredTypes.contains(ObjectIdentifier(type(of: dispatchable))) {
                        logger.log(level: level, "[Dispatchable]: \(String(reflecting: dispatchable))")
                    }
                }
            }
        }
    }
}
