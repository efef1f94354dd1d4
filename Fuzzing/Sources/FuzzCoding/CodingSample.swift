import Foundation

/// A shape that exercises every mapping rule at once: integer widths, floats, optionals, nesting,
/// string- and integer-keyed dictionaries, enums with and without payloads.
struct CodingSample: Codable, Equatable {
    enum Mood: String, Codable, Equatable { case calm, busy }
    enum Event: Codable, Equatable {
        case created(at: Int64)
        case renamed(String, previous: String?)
        case cleared
    }

    var int8: Int8
    var uint16: UInt16
    var int: Int
    var uint64: UInt64
    var float: Float
    var double: Double
    var name: String
    var note: String?
    var flags: [Bool]
    var byName: [String: Int32]
    var byID: [Int: String]
    var matrix: [[Int8]]
    var mood: Mood
    var events: [Event]
    var child: [CodingSample]
}
