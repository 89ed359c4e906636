package dev.corral.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TreeRulesTest {
  @Test
  void anEntryWithoutRulesIsAppliedByTheFirstOnes() {
    assertEquals(TreeRules.V0, TreeRules.of(0));
    assertEquals(TreeRules.V1, TreeRules.of(1));
    assertEquals(TreeRules.V2, TreeRules.of(2));
  }

  @Test
  void newEntriesAreWrittenUnderZooKeepersCversionAndContainerRules() {
    assertEquals(TreeRules.V2, TreeRules.CURRENT);
  }

  @Test
  void rulesFromANewerServerAreRefusedByName() {
    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> TreeRules.of(7));
    assertTrue(refused.getMessage().contains("tree rules 7"), refused.getMessage());
  }
}
