/**
 * What the composition root opened, each with how it closes: `close()` closes them in the
 * reverse order of opening (a service closes before the connections it uses), every one even
 * when an earlier one fails, and only once.
 */
export class CloseStack {
  private readonly closers: Array<() => unknown> = [];
  private closing: Promise<void> | null = null;

  /** Records `service` as opened; returns it. */
  opened<T>(service: T, close: (service: T) => unknown): T {
    this.closers.push(() => close(service));
    return service;
  }

  close(): Promise<void> {
    return (this.closing ??= this.closeAll());
  }

  private async closeAll(): Promise<void> {
    let failure: unknown = null;
    for (const close of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
  }
}
