import EncoreSupport

/// Silent pushes: a push token (or app-instance token) of the wrong form
/// for its type; a registration message that cannot be read; an event
/// name the rule does not know.
extension EncoreError.Kind {
    public static let pushToken = EncoreError.Kind("pushToken")
    public static let pushMessage = EncoreError.Kind("pushMessage")
    public static let pushEvent = EncoreError.Kind("pushEvent")
}
