/// A dispatched item, with what the store does with it: apply it, or start it as a task.
struct DispatchItem: Sendable {
    /// The item as interceptors see it.
    let dispatchable: any Dispatchable
    /// Its kind and concrete type.
    let metatype: Metatype

    /// A dispatched item's kind and concrete type, without the item: free to copy, where the item is
    /// copied through value witnesses.
    enum Metatype {
        case updater(any AnyStateUpdater.Type)
        case sideEffect(any AnySideEffect.Type)
        /// A side effect the store starts with a ``SideEffectEnding`` of its own.
        case selfEndingSideEffect(any SelfEndingSideEffect.Type)

        var isUpdater: Bool {
            if case .updater = self { true } else { false }
        }

        /// Whether `dispatchable` is of this type.
        func isType(of dispatchable: any Dispatchable) -> Bool {
            switch self {
            case .updater(let type): Swift.type(of: dispatchable) == type
            case .sideEffect(let type): Swift.type(of: dispatchable) == type
            case .selfEndingSideEffect(let type): Swift.type(of: dispatchable) == type
            }
        }

        /// The type's full name.
        var name: String {
            switch self {
            case .updater(let type): String(reflecting: type)
            case .sideEffect(let type): String(reflecting: type)
            case .selfEndingSideEffect(let type): String(reflecting: type)
            }
        }
    }

    /// An updater, sorted statically.
    static func updater(_ updater: some AnyStateUpdater) -> DispatchItem {
        DispatchItem(dispatchable: updater, metatype: .updater(type(of: updater)))
    }

    /// A side effect, sorted statically.
    static func sideEffect(_ sideEffect: some AnySideEffect) -> DispatchItem {
        DispatchItem(dispatchable: sideEffect, metatype: .sideEffect(type(of: sideEffect)))
    }

    /// A side effect that ends its own dispatch, sorted statically.
    static func selfEndingSideEffect(_ sideEffect: some SelfEndingSideEffect) -> DispatchItem {
        DispatchItem(dispatchable: sideEffect, metatype: .selfEndingSideEffect(type(of: sideEffect)))
    }

    private init(dispatchable: any Dispatchable, metatype: Metatype) {
        (self.dispatchable, self.metatype) = (dispatchable, metatype)
    }

    /// Sorts `dispatchable` with dynamic casts, or returns nil if the store cannot run it.
    ///
    /// Only for items whose kind is not known statically: the typed `dispatch` entry points and the
    /// store's fast path sort them without, because each such cast is a runtime conformance lookup
    /// that costs more than the rest of an updater dispatch.
    init?(_ dispatchable: any Dispatchable) {
        switch dispatchable {
        case let updater as any AnyStateUpdater: self.init(dispatchable: dispatchable, metatype: .updater(type(of: updater)))
        case let sideEffect as any SelfEndingSideEffect:
            self.init(dispatchable: dispatchable, metatype: .selfEndingSideEffect(type(of: sideEffect)))
        case let sideEffect as any AnySideEffect:
            self.init(dispatchable: dispatchable, metatype: .sideEffect(type(of: sideEffect)))
        default: return nil
        }
    }
}

/// The type of the item a store is processing (nil between items): owned by the draining thread.
final class ProcessingItem: @unchecked Sendable {
    // @unchecked Sendable: only the draining thread touches `type`; the role passes through the store's lock.
    var type: DispatchItem.Metatype?
}
