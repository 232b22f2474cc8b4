import FenceLab
import _CommandLineKit

/// A command line parsed against a command's declared options (see `OptionDeclaration`).
typealias Arguments = ParsedOptions
