/// Keeps negative numbers given as payloads from being read as options.
///
/// ArgumentParser takes every word that starts with `-` for an option, so `--dispatch counter.set -1`
/// ended at `-1` (`Unknown option '-1'`) and a negative number could not be a payload. No option of
/// `moonblade` starts with a digit: among the words of a `--dispatch` or `--post`, a word that starts
/// as a negative number does (`-1`, `-0.5e3`, `-01` too, which the JSON reader then refuses) is a
/// payload, and is handed over with a leading space, JSON whitespace the payload reader skips.
enum NegativePayloads {
    /// `words` (the command line without the program) with each such payload protected.
    static func protecting(_ words: [String]) -> [String] {
        var protected: [String] = []
        protected.reserveCapacity(words.count)
        var inPayloadOption = false
        for (index, word) in words.enumerated() {
            if word == "--" {  // the rest are arguments already
                protected += words[index...]
                break
            }
            if word.hasPrefix("-") {
                if inPayloadOption && startsAsNegativeNumber(word) {
                    protected.append(" " + word)
                    continue
                }
                inPayloadOption = ["--dispatch", "--post"].contains(word.split(separator: "=", maxSplits: 1).first ?? "")
            }
            protected.append(word)
        }
        return protected
    }

    private static func startsAsNegativeNumber(_ word: String) -> Bool {
        let bytes = word.utf8
        return bytes.count >= 2 && bytes.dropFirst().first.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } == true
    }
}
