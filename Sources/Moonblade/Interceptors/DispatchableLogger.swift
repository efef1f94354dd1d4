import Logging

/// Katana's logging interceptor: logs every dispatched item through swift-log.
public enum DispatchableLogger {
    /// Returns an interceptor that logs every item before passing it on, except items whose exact type
    /// is in `blackList`.
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
                    if !ignoredTypes.contains(ObjectIdentifier(type(of: dispatchable))) {
                        logger.log(level: level, "[Dispatchable]: \(String(reflecting: dispatchable))")
                    }
                    try next(dispatchable)
                }
            }
        }
    }
}
