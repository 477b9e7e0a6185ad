// The core as one module for its users (the C-ABI layer, the CLI, the
// bench): every layer, re-exported. The layers themselves import only what
// lies below them, so the compiler refuses a dependency loop.
@_exported import EncoreCheckIns
@_exported import EncoreCrypto
@_exported import EncoreHTTP
@_exported import EncoreKeyFiles
@_exported import EncoreMatching
@_exported import EncoreModel
@_exported import EncoreProtocols
@_exported import EncoreRisk
@_exported import EncoreServices
@_exported import EncoreStorage
@_exported import EncoreSupport
@_exported import EncoreTracing
@_exported import EncoreWire
