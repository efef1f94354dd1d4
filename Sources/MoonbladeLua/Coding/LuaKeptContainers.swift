/// The keyed containers a root coder has handed out, kept for the next value that asks for the same
/// one, so that a struct's `container(keyedBy:)` neither allocates the standard library's box nor looks
/// up its generic types (three metadata look-ups and a witness table, ~700 instructions: as much as
/// reading two fields).
///
/// A container is kept by its key type, its table's stack index and whether its keys are integers:
/// everything a container holds besides its coder, and it holds nothing that changes, so the kept one
/// is the one that would be made. The items of an array, coded one after the other at the same stack
/// slot, share one; so do the payloads pushed one dispatch after the other.
///
/// A kept encoding container holds its coder strongly (so that its methods need not retain it), and its
/// coder holds it: ``LuaKeptCoder`` breaks the cycle with ``removeAll()`` when it lets the coder go
/// (``LuaKeptCoder/giveBack(_:)`` for a coder it made for one use, ``LuaKeptCoder/discard()`` for its own).
struct LuaKeptContainers {
    private struct Entry {
        let keyType: ObjectIdentifier
        let table: Int32
        let integerKeys: Bool
        let kept: AnyObject
    }

    /// How many containers are kept: a state has few struct types, at few nesting depths.
    private static let capacity = 32

    private var entries: [Entry] = []

    /// The container kept for `keyType`, `table` and `integerKeys`, or the one `make` makes, kept when
    /// `keeping` and there is room.
    @inline(__always)
    mutating func container<Key: CodingKey, Container>(
        _ keyType: Key.Type, table: Int32, integerKeys: Bool, keeping: Bool, _ make: () -> Container
    ) -> Container {
        guard keeping else { return make() }
        if let kept = kept(ObjectIdentifier(Key.self), table, integerKeys) {
            // Read through the box's own method, which finds the container's type in the box's
            // metadata: reading it here would look `Container` up in the runtime's table.
            return unsafeDowncast(kept, to: LuaKeptValue<Container>.self).value()
        }
        return keep(ObjectIdentifier(Key.self), table, integerKeys, make)
    }

    private func kept(_ keyType: ObjectIdentifier, _ table: Int32, _ integerKeys: Bool) -> AnyObject? {
        var index = 0
        while index < entries.count {
            if entries[index].keyType == keyType && entries[index].table == table && entries[index].integerKeys == integerKeys {
                return entries[index].kept
            }
            index += 1
        }
        return nil
    }

    /// Lets go of every kept container.
    mutating func removeAll() {
        entries.removeAll()
    }

    /// Makes a container and keeps it if there is room; apart, so that the way that finds a kept one
    /// does not ask for `Container`'s metadata.
    @inline(never)
    private mutating func keep<Container>(
        _ keyType: ObjectIdentifier, _ table: Int32, _ integerKeys: Bool, _ make: () -> Container
    ) -> Container {
        let made = make()
        if entries.count < Self.capacity {
            entries.append(Entry(keyType: keyType, table: table, integerKeys: integerKeys, kept: LuaKeptValue(made)))
        }
        return made
    }
}

/// A value kept behind a reference, read by a method that is not inlined: the method finds `Value`'s
/// type in the object's metadata.
final class LuaKeptValue<Value> {
    private let stored: Value

    init(_ value: Value) { stored = value }

    @inline(never)
    func value() -> Value { stored }
}
