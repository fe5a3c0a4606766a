/// The version of this build, in one place: `mowdeck --version` prints it and the workers'
/// `mowdeck_build_info` metric labels it. Its minor number follows the issue the release
/// closed (0.26: the operator's kit), so an operator can tell which fixes a deployment has.
public enum BuildVersion {
  public static let version = "0.26.0"
}
