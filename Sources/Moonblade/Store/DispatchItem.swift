/// A dispatched item, sorted by what the store does with it: apply it, or start it as a task.
enum DispatchItem: Sendable {
    case updater(any AnyStateUpdater)
    case sideEffect(any AnySideEffect)

    /// Sorts `dispatchable` with dynamic casts, or returns nil if the store cannot run it.
    ///
    /// Only for items whose kind is not known statically: the typed `dispatch` entry points and the
    /// store's fast path build the cases directly, because each such cast is a runtime conformance
    /// lookup that costs more than the rest of an updater dispatch.
    init?(_ dispatchable: any Dispatchable) {
        switch dispatchable {
        case let updater as any AnyStateUpdater: self = .updater(updater)
        case let sideEffect as any AnySideEffect: self = .sideEffect(sideEffect)
        default: return nil
        }
    }

    /// The item as interceptors see it.
    var dispatchable: any Dispatchable {
        switch self {
        case .updater(let updater): updater
        case .sideEffect(let sideEffect): sideEffect
        }
    }

    /// The item's kind and concrete type.
    var metatype: Metatype {
        switch self {
        case .updater(let updater): .updater(type(of: updater))
        case .sideEffect(let sideEffect): .sideEffect(type(of: sideEffect))
        }
    }

    /// A dispatched item's kind and concrete type, without the item.
    enum Metatype {
        case updater(any AnyStateUpdater.Type)
        case sideEffect(any AnySideEffect.Type)

        /// The type's full name.
        var name: String {
            switch self {
            case .updater(let type): String(reflecting: type)
            case .sideEffect(let type): String(reflecting: type)
            }
        }
    }
}
