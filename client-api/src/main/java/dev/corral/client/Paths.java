package dev.corral.client;

/** Joining and splitting of valid paths. */
public final class Paths {
  /** The root path. */
  public static final String ROOT = "/";

  private Paths() {}

  /** {@code parent + "/" + name}, without doubling the slash at the root. */
  public static String join(String parent, String name) {
    return parent.equals(ROOT) ? ROOT + name : parent + "/" + name;
  }

  /** The parent of {@code path}; the root for a top-level node. Not defined for the root. */
  public static String parent(String path) {
    if (path.equals(ROOT)) {
      throw new IllegalArgumentException("the root has no parent");
    }
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? ROOT : path.substring(0, slash);
  }

  /** The last segment of {@code path} (empty for the root). */
  public static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
