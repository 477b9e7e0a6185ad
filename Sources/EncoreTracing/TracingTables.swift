import EncoreExposure
import EncoreStorage

/// Tracing keeps its calibration and adapter in settings under "tracing."
/// (it uses exposure notification's sightings and tracing history).
extension StoreTables {
    public static let tracing = StoreTables(feature: "tracing", settingPrefixes: ["tracing."])
}
