/**
 * One instance per environment, started by the first caller that asks for it and closed together at the end: the
 * shared test app (shared-app.ts) and the shared medium context (shared-medium.ts) of a group spec.
 */
export class OncePerEnv<T extends { close(): Promise<void> }> {
  private readonly started = new Map<string, Promise<T>>();

  get(env: Record<string, string>, start: () => Promise<T>): Promise<T> {
    const key = JSON.stringify(Object.entries(env).sort(([a], [b]) => a.localeCompare(b)));
    let instance = this.started.get(key);
    if (instance === undefined) {
      instance = start();
      this.started.set(key, instance);
    }
    return instance;
  }

  async closeAll(): Promise<void> {
    const instances = [...this.started.values()];
    this.started.clear();
    await Promise.all(instances.map(async (instance) => (await instance).close()));
  }
}
