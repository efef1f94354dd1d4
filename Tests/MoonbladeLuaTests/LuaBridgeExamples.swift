// swift-format-ignore-file
// Its snippets are the documents' code, formatted as the documents show it (a test checks they match).
import Testing

// The example of the MoonbladeLua catalog's "The Lua Bridge", compiled and run here.

// snippet: lua-bridge-vm
import MoonbladeLua

func greetFromLua() throws -> [LuaValue] {
    let vm = try LuaVM(configuration: .init(memoryLimit: 64 << 20))
    vm.register("greet") { stack in                 // a Swift function Lua can call
        let name = stack.string(at: 1) ?? "world"
        stack.push("hello, \(name)")
        return 1                                    // number of results pushed
    }
    return try vm.run("return greet('lua')", chunkName: "hello.lua")   // ["hello, lua"]
}
// end snippet

@Test func theBridgeExampleGreets() throws {
    #expect(try greetFromLua() == ["hello, lua"])
}
