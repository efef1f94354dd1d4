import Foundation
import FuzzSupport

exit(runFuzzer(fuzzDrafts))
