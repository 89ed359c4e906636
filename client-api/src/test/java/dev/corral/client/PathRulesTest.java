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
  void aVeryLongPathIsShortenedInTheMessageButKeptWhole() {
    String path = "relative" + "x".repeat(100_000);
    InvalidPathException e = assertThrows(InvalidPathException.class, () -> PathRules.check(path, false));
    assertTrue(e.getMessage().length() < 1000, "message of " + e.getMessage().length() + " chars");
    assertTrue(e.getMessage().contains(path.length() + " chars"));
    assertEquals(path, e.path());
  }
}
