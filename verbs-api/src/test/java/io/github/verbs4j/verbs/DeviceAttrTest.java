package io.github.verbs4j.verbs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DeviceAttrTest {
  @Test
  void aDeviceThatDoesNotSayIsTakenToRequireALosslessFabric() {
    assertTrue(DeviceAttr.builder().build().requiresLosslessFabric());
    assertFalse(DeviceAttr.builder().requiresLosslessFabric(false).build().requiresLosslessFabric());
  }
}
