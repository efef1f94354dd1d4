// Fails when a public symbol of the given modules has no documentation comment.
//
//   swift Scripts/Support/check-doc-comments.swift <symbol graph directory> <module>...
//
// Reads the symbol graphs `swift package dump-symbol-graph` writes (`<module>.symbols.json` and the
// `<module>@<other>.symbols.json` of its extensions). A member that implements a protocol requirement
// without a comment of its own carries the requirement's comment there, so it passes; members the
// compiler synthesizes are skipped.
import Foundation

struct SymbolGraph: Decodable {
    struct Symbol: Decodable {
        struct Identifier: Decodable { var precise: String }
        struct Kind: Decodable { var displayName: String }
        struct Location: Decodable { var uri: String; var position: Position }
        struct Position: Decodable { var line: Int }
        struct DocComment: Decodable {}
        var identifier: Identifier
        var kind: Kind
        var pathComponents: [String]
        var accessLevel: String
        var location: Location?
        var docComment: DocComment?
    }
    var symbols: [Symbol]
}

let arguments = CommandLine.arguments.dropFirst()
guard let directory = arguments.first.map(URL.init(fileURLWithPath:)), arguments.count > 1 else {
    FileHandle.standardError.write(Data("usage: check-doc-comments.swift <symbol graph directory> <module>...\n".utf8))
    exit(2)
}
var missing: [String] = []
let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
for module in arguments.dropFirst() {
    let graphs = files.filter { $0 == "\(module).symbols.json" || $0.hasPrefix("\(module)@") }
    guard !graphs.isEmpty else {
        FileHandle.standardError.write(Data("no symbol graph for \(module) in \(directory.path)\n".utf8))
        exit(2)
    }
    for file in graphs.sorted() {
        let graph = try JSONDecoder().decode(SymbolGraph.self, from: Data(contentsOf: directory.appendingPathComponent(file)))
        for symbol in graph.symbols
        where symbol.accessLevel == "public" && symbol.docComment == nil
            && !symbol.identifier.precise.contains("::SYNTHESIZED::")
        {
            let place = symbol.location.map {
                "\(URL(string: $0.uri)?.path ?? $0.uri):\($0.position.line + 1)"
            } ?? module
            missing.append("\(place): \(symbol.kind.displayName) \(symbol.pathComponents.joined(separator: ".")) has no documentation comment")
        }
    }
}
for line in missing.sorted() { print(line) }
if !missing.isEmpty {
    print("\(missing.count) public symbol(s) without a documentation comment")
    exit(1)
}
