package dev.corral.client.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BuilderTest {
  @Test
  void aRepeatedSettingFailsAtOnce() {
    CorralClient.Builder builder = CorralClient.builder().sessionTimeout(Duration.ofSeconds(5));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> builder.sessionTimeout(Duration.ofSeconds(6)));
    assertTrue(e.getMessage().contains("sessionTimeout"), e.getMessage());
  }

  @Test
  void invalidValuesFailAtOnce() {
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().connectString("localhost"));
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().connectString("h:0"));
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().sessionTimeout(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().namespace("/app"));
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().namespace("a//b"));
    assertThrows(IllegalArgumentException.class,
        () -> RetryPolicy.exponentialBackoff(0, Duration.ofMillis(1), Duration.ofMillis(1)));
    assertThrows(IllegalArgumentException.class,
        () -> RetryPolicy.exponentialBackoff(3, Duration.ofSeconds(2), Duration.ofSeconds(1)));
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().session(0, new byte[16]));
    assertThrows(NullPointerException.class, () -> CorralClient.builder().session(42, null));
  }

  @Test
  void aSessionToJoinIsGivenOnceAndNeverPrintsItsPassword() {
    byte[] password = "secret-password!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    CorralClient.Builder builder = CorralClient.builder().session(0x2a, password);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> builder.session(0x2b, password));
    assertTrue(e.getMessage().contains("session 0x2a") && !e.getMessage().contains("secret"), e.getMessage());
  }

  @Test
  void aClientNeedsAConnectString() {
    assertThrows(IllegalStateException.class, () -> CorralClient.builder().build());
  }

  @Test
  void connectStringsListHostsAndPorts() {
    assertEquals(2, ServerList.parse("h1:7181, [::1]:7182").size());
    assertEquals("::1", ServerList.parse("[::1]:7182").get(0).host());
  }

  @Test
  void backoffDoublesUpToTheMaximum() {
    RetryPolicy policy = RetryPolicy.exponentialBackoff(5, Duration.ofMillis(100), Duration.ofMillis(350));
    assertEquals(Duration.ofMillis(100), policy.backoff(1));
    assertEquals(Duration.ofMillis(200), policy.backoff(2));
    assertEquals(Duration.ofMillis(350), policy.backoff(3));
  }
}
