package dev.corral.client;

import java.util.Optional;

/**
 * The path rules of the protocol, the same for client and server, and
 * ZooKeeper's: absolute, '/'-separated, no trailing slash (except the root),
 * no empty, "." or ".." segment, no control characters (U+0000-U+001F,
 * U+007F-U+009F), and none of the characters ZooKeeper refuses, U+D800-U+F8FF
 * (every surrogate, so every character beyond U+FFFF, and the private use
 * area) and U+FFF0-U+FFFF. A node created is also named by at most
 * {@value #MAX_PATH_BYTES} bytes in UTF-8 ({@link #lengthViolation}).
 */
public final class PathRules {
  /**
   * The longest path a create may name, in UTF-8 bytes (Linux's PATH_MAX).
   * ZooKeeper has no such limit but its 1 MiB request; without one, a single
   * create of a path thousands of segments deep (with its parents) stalled the
   * server for seconds, and the change history held every event's whole path.
   */
  public static final int MAX_PATH_BYTES = 4096;
  /** The digits a sequential create appends to its path. */
  private static final int SEQUENCE_DIGITS = 10;

  private PathRules() {}

  /**
   * Checks a path, failing with an exception that names the broken rule. For a
   * sequential create the path is checked as it will be once the counter is
   * appended (so "/q/" is allowed there).
   *
   * @throws InvalidPathException if a rule is broken (also for a null path)
   */
  public static String check(String path, boolean sequential) throws InvalidPathException {
    if (path == null) {
      throw new InvalidPathException("the path is null", "");
    }
    refuseIf(violation(sequential ? path + "0" : path), path);
    return path;
  }

  /**
   * Checks the length of the path a create names, as the server will see it
   * (with the client's chroot and namespace, and for a sequential create the
   * counter's 10 digits).
   *
   * @throws InvalidPathException if it is longer than {@value #MAX_PATH_BYTES} bytes in UTF-8
   */
  public static void checkLength(String serverPath, boolean sequential) throws InvalidPathException {
    refuseIf(lengthViolation(serverPath, sequential), serverPath);
  }

  private static void refuseIf(Optional<String> rule, String path) throws InvalidPathException {
    if (rule.isPresent()) {
      throw new InvalidPathException(describe(path, rule.get()), path);
    }
  }

  /** Longest stretch of a path quoted in a message. */
  static final int QUOTED_MAX = 200;

  /** A message for a path that breaks {@code rule} (a very long path is shortened). */
  public static String describe(String path, String rule) {
    String quoted = path.length() <= QUOTED_MAX
        ? printable(path)
        : printable(path.substring(0, QUOTED_MAX)) + "... (" + path.length() + " chars)";
    return "invalid path \"" + quoted + "\": " + rule;
  }

  /** The rule {@code path} breaks, or empty if it is valid. */
  public static Optional<String> violation(String path) {
    if (path.isEmpty()) {
      return Optional.of("the path is empty");
    }
    if (path.charAt(0) != '/') {
      return Optional.of("the path must be absolute (start with '/')");
    }
    Optional<String> badChar = badCharacter(path);
    if (badChar.isPresent()) {
      return badChar;
    }
    if (path.length() > 1 && path.endsWith("/")) {
      return Optional.of("the path must not end with '/'");
    }
    return badSegment(path);
  }

  /**
   * Why a create may not name {@code path}: it is longer than
   * {@value #MAX_PATH_BYTES} bytes in UTF-8, counting for a sequential create
   * the counter's 10 digits; empty if it is not. Checked on creates only: a
   * node made before the limit (its create in a log or snapshot replays as it
   * was applied) can still be read, watched and deleted.
   */
  public static Optional<String> lengthViolation(String path, boolean sequential) {
    int limit = MAX_PATH_BYTES - (sequential ? SEQUENCE_DIGITS : 0);
    if (!longerThan(path, limit)) {
      return Optional.empty();
    }
    return Optional.of("the path is longer than " + MAX_PATH_BYTES + " bytes in UTF-8, the limit"
        + (sequential ? ", with its 10-digit counter" : "") + " (" + path.length() + " characters)");
  }

  private static boolean longerThan(String path, int limitBytes) {
    if (path.length() > limitBytes) {
      return true; // a character takes at least a byte
    }
    if (path.length() * 3 <= limitBytes) {
      return false; // and at most 3 (no surrogates)
    }
    int bytes = 0;
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3; // a surrogate counts 3: the path rules refuse it anyway
    }
    return bytes > limitBytes;
  }

  private static Optional<String> badCharacter(String path) {
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (isControl(c)) {
        return Optional.of(String.format("control character U+%04X at index %d", (int) c, i));
      }
      if (isRefused(c)) {
        return Optional.of(String.format("character U+%04X at index %d is not allowed (as in ZooKeeper, no"
            + " U+D800-U+F8FF, which takes in every character beyond U+FFFF, and no U+FFF0-U+FFFF)", (int) c, i));
      }
    }
    return Optional.empty();
  }

  private static Optional<String> badSegment(String path) {
    if (path.length() == 1) {
      return Optional.empty();
    }
    int start = 1;
    while (start <= path.length()) {
      int end = path.indexOf('/', start);
      end = end < 0 ? path.length() : end;
      String segment = path.substring(start, end);
      if (segment.isEmpty()) {
        return Optional.of("empty segment at index " + start);
      }
      if (segment.equals(".") || segment.equals("..")) {
        return Optional.of("'" + segment + "' segment at index " + start);
      }
      start = end + 1;
    }
    return Optional.empty();
  }

  private static boolean isControl(char c) {
    return c <= 0x1F || (c >= 0x7F && c <= 0x9F);
  }

  /** Surrogates, the private use area and the specials block: refused by ZooKeeper's PathUtils. */
  private static boolean isRefused(char c) {
    return (c >= 0xD800 && c <= 0xF8FF) || c >= 0xFFF0;
  }

  /** The path with control and refused characters escaped, for messages. */
  public static String printable(String path) {
    StringBuilder out = new StringBuilder(path.length());
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (isControl(c) || isRefused(c)) {
        out.append(String.format("\\u%04X", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
