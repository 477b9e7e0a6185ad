import EncoreSupport

/// The kind of error a throwing expression raised, or nil when it did not throw.
package func kind<T>(_ body: () throws -> T) -> EncoreError.Kind? {
    do {
        _ = try body()
        return nil
    } catch let e as EncoreError {
        return e.kind
    } catch {
        return .internalError
    }
}
