package dev.corral.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PathsTest {
  /**
   * A name with a character beyond U+FFFF (held by a tree written before such
   * characters were refused) sorts by its UTF-8 bytes, where String's order,
   * by UTF-16 code unit, would put it before U+FFFD.
   */
  @Test
  void namesSortByTheirUtf8BytesAlsoBeyondU_FFFF() {
    List<String> names = new ArrayList<>(List.of("\uD83D\uDE00", "\uFFFD", "b", "a0", "a"));

    names.sort(Paths.UTF8_ORDER);

    // U+FFFD encodes as EF BF BD, U+1F600 as F0 9F 98 80
    assertEquals(List.of("a", "a0", "b", "\uFFFD", "\uD83D\uDE00"), names);
  }
}
