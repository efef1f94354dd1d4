import Foundation
import Moonblade
import MoonbladeLua

/// The plugins' Lua interceptors as one chain: passes an item table through them in load order, and
/// past the last `next` hands the item back to Swift. Lives in the VM (touched with the VM held).
final class LuaInterceptorChain {
    static let chunkName = "moonblade/interceptors.lua"

    /// The glue's `intercept(interceptors, item)`.
    private let intercept: LuaReference
    /// Items being passed through the interceptors, innermost last (an interceptor's `next` may apply
    /// an updater whose own interceptors run inside it).
    private(set) var interceptions: [Interception] = []

    /// Loads the glue; `handOn` is what the last `next(item)` calls, with the item table at 1.
    init(on stack: LuaStack, handOn: @escaping LuaFunction) throws(LuaError) {
        try stack.load(Self.source, chunkName: Self.chunkName)
        stack.push(function: handOn)
        stack.pushInterceptorNextMaker()
        try stack.callAsHost(arguments: 2, results: 1)
        intercept = stack.popReference()
    }

    /// Runs `interceptors` on the item table on top of `stack` (popping it) for `interception`.
    func run(_ interceptors: LuaReference, on stack: LuaStack, for interception: Interception) throws(LuaError) {
        interceptors.push(onto: stack)
        stack.insert(at: -2)
        interceptions.append(interception)
        defer { interceptions.removeLast() }
        try stack.call(arguments: 2, function: intercept)
    }

    /// `Lua/interceptors.lua`.
    private static let source = String(luaResource: PackageResources.interceptors_lua)
}
