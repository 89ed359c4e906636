package dev.corral.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PathRulesTest {

  @ParameterizedTest
  @ValueSource(strings = {"/", "/a", "/a/b", "/a.b/..c/...", "/\u00e9t\u00e9", "/\uD83D\uDE00", "/a b", "/zookeeper"})
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

  @ParameterizedTest
  @ValueSource(strings = {"/\uD83D", "/\uDE00", "/\uDE00\uD83D", "/a\uD83Db"})
  void unpairedSurrogatesAreRejected(String path) {
    assertTrue(PathRules.violation(path).orElseThrow().contains("unpaired surrogate"));
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
