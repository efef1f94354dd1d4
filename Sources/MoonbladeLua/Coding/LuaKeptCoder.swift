/// A root encoder or decoder that a VM keeps between uses (see ``LuaKeptCoder``).
protocol LuaReusableCoder: AnyObject {
    associatedtype Options
    init(state: OpaquePointer, options: Options)
    /// Readies it for another use on `state` (any thread of its VM) with `options`, keeping its
    /// buffers and what it learnt about types, but nothing of the last use's state.
    func prepareForReuse(state: OpaquePointer, options: Options)
    /// Lets go of what the last use held (child coders, the settings and their `userInfo`), so that a
    /// kept coder keeps nothing of a caller's alive between uses.
    func releaseAfterUse()
    /// Lets go of what it keeps between uses that holds it in turn (its kept containers), so that it
    /// can be freed.
    func discardKept()
}

/// The one root coder of a kind a VM keeps (in its ``LuaRuntime``), so that a small push or decode
/// allocates nothing of its own and what the coder learnt about types lasts. A use that starts while
/// another is under way (an `encode(to:)` or `init(from:)` reaching the same VM) gets a coder of its
/// own. Used under the VM's one-thread rule.
struct LuaKeptCoder<Coder: LuaReusableCoder> {
    private var kept: Coder?
    private var inUse = false

    /// The kept coder readied for a use on `state` with `options`, or a fresh one while it is busy.
    /// Hand it back with ``giveBack(_:)``.
    mutating func take(state: OpaquePointer, options: Coder.Options) -> Coder {
        guard !inUse else { return Coder(state: state, options: options) }
        inUse = true
        if let kept {
            kept.prepareForReuse(state: state, options: options)
            return kept
        }
        let made = Coder(state: state, options: options)
        kept = made
        return made
    }

    /// Ends a use of `coder`: the kept one lets go of what the use held, a fresh one of everything.
    mutating func giveBack(_ coder: Coder) {
        guard coder === kept else { return coder.discardKept() }
        coder.releaseAfterUse()
        inUse = false
    }

    /// Lets the kept coder go (its VM's runtime is going).
    mutating func discard() {
        kept?.discardKept()
        kept = nil
    }
}
