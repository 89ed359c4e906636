package dev.corral.server.tree;

import java.util.Comparator;

/** Splitting and joining of valid paths (see {@link PathRules}). */
final class Paths {
  static final String ROOT = "/";

  /**
   * Orders names as the bytes of their UTF-8 encoding do (that is, by code point). For the paths the
   * rules accept now, which hold no surrogates, that is String's own order; not for the names with
   * characters beyond U+FFFF that a tree written before those were refused may still hold.
   */
  static final Comparator<String> UTF8_ORDER = Paths::compareCodePoints;

  private Paths() {}

  /** The parent of {@code path}, or null for the root. */
  static String parent(String path) {
    if (path.equals(ROOT)) {
      return null;
    }
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? ROOT : path.substring(0, slash);
  }

  /** The last segment of a non-root {@code path}. */
  static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  static String child(String parent, String name) {
    return parent.equals(ROOT) ? ROOT + name : parent + "/" + name;
  }

  private static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
