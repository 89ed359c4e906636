package dev.corral.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PathRulesTest {
  @Test
  void validPathsPassIncludingSequentialPrefixesEndingInSlash() throws Exception {
    assertEquals("/", PathRules.check("/", false));
    assertEquals("/a/b-\u00e9\uD7FF\uF900\uFFEF", PathRules.check("/a/b-\u00e9\uD7FF\uF900\uFFEF", false));
    assertEquals("/q/", PathRules.check("/q/", true));
  }

  @Test
  void nullAndInvalidPathsFailWithTheRuleNamed() {
    assertTrue(assertThrows(InvalidPathException.class, () -> PathRules.check(null, false))
        .getMessage().contains("null"));
    assertTrue(assertThrows(InvalidPathException.class, () -> PathRules.check("a", false))
        .getMessage().contains("absolute"));
    assertTrue(assertThrows(InvalidPathException.class, () -> PathRules.check("/a/", false))
        .getMessage().contains("end with"));
    assertTrue(assertThrows(InvalidPathException.class, () -> PathRules.check("/a/../b", false))
        .getMessage().contains(".."));
    assertEquals(Code.INVALID_PATH, assertThrows(InvalidPathException.class,
        () -> PathRules.check("/a\u0000", false)).code());
  }

  @Test
  void createdPathsAreAtMost4096BytesInUtf8CountingASequentialCounter() throws Exception {
    String longest = "/" + "x".repeat(PathRules.MAX_PATH_BYTES - 1);
    PathRules.checkLength(longest, false);
    InvalidPathException tooLong = assertThrows(InvalidPathException.class,
        () -> PathRules.checkLength(longest + "x", false));
    assertTrue(tooLong.getMessage().contains("longer than 4096 bytes in UTF-8"), tooLong.getMessage());
    assertEquals(longest + "x", PathRules.check(longest + "x", false), "only creates are held to the length");
    String wide = "/" + "\u20ac".repeat(1366); // 3 bytes each: 4,099 bytes in 1,367 characters
    assertTrue(PathRules.lengthViolation(wide, false).isPresent());
    assertTrue(PathRules.lengthViolation(longest.substring(0, PathRules.MAX_PATH_BYTES - 10), true).isEmpty());
    assertThrows(InvalidPathException.class,
        () -> PathRules.checkLength(longest.substring(0, PathRules.MAX_PATH_BYTES - 9), true));
  }

  @Test
  void aVeryLongPathIsShortenedInTheMessageButKeptWhole() {
    String path = "relative" + "x".repeat(100_000);
    InvalidPathException e = assertThrows(InvalidPathException.class, () -> PathRules.check(path, false));
    assertTrue(e.getMessage().length() < 1000, "message of " + e.getMessage().length() + " chars");
    assertTrue(e.getMessage().contains(path.length() + " chars"));
    assertEquals(path, e.path());
  }
}
