import FuzzSupport
import Foundation

exit(runFuzzer(fuzzCoding))
