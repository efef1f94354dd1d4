import Foundation
import MoonbladeHost
import Testing

@Suite("JSONValue as JSON text")
struct JSONValueTextTests {
    let sample: JSONValue = [
        "b": [1, 2.5, true, nil, [], [:]],
        "a": ["quote": "say \"hi\"\\ \n\t\u{1}/é"],
    ]

    @Test func compactTextIsOneLineWithSortedKeys() {
        #expect(
            sample.jsonString() == #"{"a":{"quote":"say \"hi\"\\ \n\t\u0001/é"},"b":[1,2.5,true,null,[],{}]}"#
        )
    }

    @Test func prettyTextIndentsByTwoSpaces() {
        #expect(
            sample.jsonString(pretty: true) == """
                {
                  "a": {
                    "quote": "say \\"hi\\"\\\\ \\n\\t\\u0001/é"
                  },
                  "b": [
                    1,
                    2.5,
                    true,
                    null,
                    [],
                    {}
                  ]
                }
                """)
    }

    @Test func textReadsBackAsTheSameValue() throws {
        for pretty in [false, true] {
            let text = sample.jsonString(pretty: pretty)
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) == sample)
        }
    }

    @Test func nonFiniteFloatsBecomeStrings() {
        let value: JSONValue = [.double(.infinity), .double(-.infinity), .double(.nan), 1e-7]
        #expect(value.jsonString() == #"["inf","-inf","nan",1e-07]"#)
    }
}
