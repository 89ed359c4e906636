package dev.corral.client;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Protected names, as Curator's: {@code <parent>/_c_<guid>-<name>}. A client
 * that lost the reply to a protected create lists the parent and adopts the
 * child carrying its GUID.
 */
public final class Protection {
  /** The prefix of every protected name. */
  public static final String PREFIX = "_c_";
  private static final int GUID_LENGTH = 36;

  private Protection() {}

  /** A fresh GUID for one create attempt. */
  public static String newGuid() {
    return UUID.randomUUID().toString();
  }

  /** The protected form of {@code path}: its last segment prefixed with {@code _c_<guid>-}. */
  public static String protect(String path, String guid) {
    String parent = Paths.parent(path);
    return Paths.join(parent, PREFIX + guid + "-" + Paths.name(path));
  }

  /** The child among {@code children} whose name carries {@code guid}, if any. */
  public static Optional<String> findOwn(List<String> children, String guid) {
    String prefix = PREFIX + guid + "-";
    return children.stream().filter(name -> name.startsWith(prefix)).findFirst();
  }

  /** True if {@code name} is a protected name. */
  public static boolean isProtected(String name) {
    return name.startsWith(PREFIX) && name.length() > PREFIX.length() + GUID_LENGTH
        && name.charAt(PREFIX.length() + GUID_LENGTH) == '-';
  }

  /** {@code name} without its protection prefix (unchanged if it has none). */
  public static String unprotected(String name) {
    return isProtected(name) ? name.substring(PREFIX.length() + GUID_LENGTH + 1) : name;
  }
}
