package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.AddressHandle;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.ProtectionDomain;

/** An address handle in software: a validated {@link AhAttr} owned by a PD. */
public final class SoftAddressHandle implements AddressHandle {
  private final AbstractProtectionDomain pd;
  private final AhAttr attr;
  private volatile boolean closed;

  SoftAddressHandle(AbstractProtectionDomain pd, AhAttr attr) {
    this.pd = pd;
    this.attr = attr;
  }

  @Override
  public AhAttr attr() {
    return attr;
  }

  @Override
  public ProtectionDomain pd() {
    return pd;
  }

  /** @return whether closed */
  public boolean isClosed() {
    return closed;
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      pd.children.remove(this);
      pd.softContext().memoryAccount().release(this);
    }
  }
}
