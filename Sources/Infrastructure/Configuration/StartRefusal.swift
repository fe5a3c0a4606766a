/// An error no retry and no restart can cure: a setting that cannot work, a database
/// schema newer than the binary. The process ends with its one line on stderr and exit
/// status 2, whether it is met while reading the settings or later, inside a service
/// (`ServiceRunner`): a worker that fails later than it could have looks healthy until then.
public protocol StartRefusal: Error, CustomStringConvertible {}

extension ConfigurationError: StartRefusal {}
