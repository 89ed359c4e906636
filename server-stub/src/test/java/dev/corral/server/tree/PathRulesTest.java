package dev.corral.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PathRulesTest {

  @ParameterizedTest
  @ValueSource(strings = {"/", "/a", "/a/b", "/a.b/..c/...", "/\u00e9t\u00e9", "/\uD7FF", "/\uF900", "/\uFFEF",
      "/a b", "/zookeeper"})
  void validPathsPass(String path) {
    assertEquals(Optional.empty(), PathRules.violation(path));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "''        | empty",
      "a/b       | absolute",
      "/a/       | end with '/'",
      "//        | end with '/'",
      "/a//b     | empty segment",
      "/a/./b    | '.' segment",
      "/a/..     | '..' segment",
      "/.        | '.' segment",
  })
  void invalidPathsNameTheirRule(String path, String rule) {
    String violation = PathRules.violation(path).orElseThrow();
    assertTrue(violation.contains(rule), violation);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/a\u0000", "/a\u001f", "/\u007f", "/\u0085", "/\u009f", "/a\nb"})
  void controlCharactersAreRejected(String path) {
    assertTrue(PathRules.violation(path).orElseThrow().contains("control character"));
  }

  /** ZooKeeper's PathUtils refuses U+D800-U+F8FF and U+FFF0-U+FFFF, surrogates paired or not. */
  @ParameterizedTest
  @ValueSource(strings = {"/\uD800", "/\uD83D", "/\uDE00", "/a\uD83Db", "/\uD83D\uDE00", "/\uE000", "/\uF8FF",
      "/\uFFF0", "/\uFFF5", "/\uFFFD", "/\uFFFF"})
  void zooKeepersRefusedCharactersAreRejected(String path) {
    assertTrue(PathRules.violation(path).orElseThrow().contains("is not allowed"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"/q/", "/", "/q/item-", "/a/."})
  void sequentialPrefixesMayEndWithASlash(String prefix) {
    assertEquals(Optional.empty(), PathRules.check(prefix, true));
  }

  @ParameterizedTest
  @ValueSource(strings = {"/q//", "q/", "/a/../"})
  void sequentialPrefixesFollowTheOtherRules(String prefix) {
    assertTrue(PathRules.check(prefix, true).isPresent());
  }

  @org.junit.jupiter.api.Test
  void messagesShowControlCharactersEscaped() {
    String message = PathRules.check("/a\u0001", false).orElseThrow().getMessage();
    assertTrue(message.contains("/a\\u0001"), message);
    assertTrue(message.contains("U+0001"), message);
  }
}
