import Foundation
import MoonbladeLua
import Testing

/// A todo list: the shape of state the host pushes most.
struct TodoState: Codable, Equatable {
    var todos: [Todo]
    var owner: User?
}

struct Todo: Codable, Equatable {
    var title: String
    var done: Bool
    var tags: [String]
}

struct User: Codable, Equatable {
    var name: String
    var age: Int
}

/// Encodes `value` as the global `state`, runs `source` and returns what it returns; checks the
/// encoder left exactly one value.
func encodeThenRun(
    _ value: some Encodable, encoder: LuaEncoder = LuaEncoder(), _ source: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> [LuaValue] {
    let vm = try LuaVM()
    let before = vm.stack.top
    try encoder.push(value, onto: vm.stack)
    #expect(vm.stack.top == before + 1, "the encoder must push exactly one value", sourceLocation: sourceLocation)
    vm.stack.pushGlobals()
    vm.stack.insert(at: -2)
    vm.stack.rawSet(table: -2, field: "state")
    vm.stack.pop()
    #expect(vm.stack.top == before, sourceLocation: sourceLocation)
    return try vm.run(source)
}

/// Runs `source` (which returns one value) and decodes what it returns, checking the stack height.
func decodeLua<T: Decodable>(
    _ type: T.Type, _ source: String, decoder: LuaDecoder = LuaDecoder(), vm: LuaVM? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> T {
    let vm = try vm ?? LuaVM()
    try vm.stack.load(source, chunkName: "test.lua")
    try vm.stack.call(results: 1)
    defer { vm.stack.pop() }
    return try expectBalanced(vm, sourceLocation: sourceLocation) {
        try decoder.decode(T.self, from: vm.stack, at: -1)
    }
}

/// Decodes from `source` expecting a `DecodingError`, and returns its one-line description.
func decodingFailure<T: Decodable>(
    _ type: T.Type, _ source: String, decoder: LuaDecoder = LuaDecoder(), vm: LuaVM? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
    do {
        let value = try decodeLua(T.self, source, decoder: decoder, vm: vm, sourceLocation: sourceLocation)
        Issue.record("expected a DecodingError, decoded \(value)", sourceLocation: sourceLocation)
    } catch let error as DecodingError {
        return LuaDecoder.describe(error)
    } catch {
        Issue.record("expected a DecodingError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Encodes `value` and decodes it back, checking the stack height after each step.
func roundTrip<T: Codable>(
    _ value: T, encoder: LuaEncoder = LuaEncoder(), decoder: LuaDecoder = LuaDecoder(), vm: LuaVM? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> T {
    let vm = try vm ?? LuaVM()
    let before = vm.stack.top
    try encoder.push(value, onto: vm.stack)
    #expect(vm.stack.top == before + 1, sourceLocation: sourceLocation)
    defer { vm.stack.pop() }
    return try expectBalanced(vm, sourceLocation: sourceLocation) {
        try decoder.decode(T.self, from: vm.stack, at: -1)
    }
}

/// Encodes `value` expecting an `EncodingError`; checks nothing was pushed and returns its description.
func encodingFailure(
    _ value: some Encodable, encoder: LuaEncoder = LuaEncoder(), sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
    do {
        let vm = try LuaVM()
        return try expectBalanced(vm, sourceLocation: sourceLocation) { () -> String? in
            do {
                try encoder.push(value, onto: vm.stack)
                Issue.record("expected an EncodingError", sourceLocation: sourceLocation)
            } catch let error as EncodingError {
                return LuaEncoder.describe(error)
            }
            return nil
        }
    } catch {
        Issue.record("expected an EncodingError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
