import type { RegistryCredentials } from '../../src/worker/codes/images/registry-credentials.js';
import type { PrivateImages } from '../../src/worker/codes/images/private-images.js';
import type { DockerExecutor } from '../docker-executor.js';

interface Decided {
  until: number;
  /** Why the project may not run the image; null when it may. */
  refusal: string | null;
}

// A decision holds this long: calls of a hot route do not ask Redis each time.
const DECISION_MS = 10_000;
const MOST_DECISIONS = 10_000;

/**
 * The private-image rule of tasks (PrivateImages), for function containers: an image some
 * project pulled with registry credentials runs for another project only after that project
 * pulled it with credentials of its own; an image on the engine is no proof of access. The
 * rule looks at what the engine holds under the reference, so naming a private image by its
 * id, a prefix of it or a digest finds it too.
 */
export class FunctionImageGate {
  /** By project, then image: a hot call's look-up builds no key (its strings come from the cached route). */
  private readonly decided = new Map<string, Map<string, Decided>>();
  /** How many decisions `decided` holds, all projects together. */
  private count = 0;

  constructor(
    private readonly credentials: RegistryCredentials,
    private readonly privateImages: PrivateImages,
    private readonly images: DockerExecutor,
  ) {}

  /** The decision `refusal` would give now when it is still held; undefined when it must be made. */
  known(projectId: string, image: string): string | null | undefined {
    const known = this.decided.get(projectId)?.get(image);
    return known && known.until > Date.now() ? known.refusal : undefined;
  }

  /** Null when `projectId` may run `image` now (pulled first with its credentials when it has some), else why not. */
  async refusal(projectId: string, image: string): Promise<string | null> {
    const known = this.known(projectId, image);
    if (known !== undefined) return known;
    const refusal = await this.decide(projectId, image);
    this.remember(projectId, image, refusal);
    return refusal;
  }

  private async decide(projectId: string, image: string): Promise<string | null> {
    const auth = await this.credentials.forImage(projectId, image);
    const onEngine = await this.images.imageOnEngine(image);
    const decision = await this.privateImages.decide(image, projectId, auth !== undefined, onEngine);
    if (decision.action === 'refuse') return decision.reason;
    if (decision.action === 'pull') {
      const pulled = await this.images.ensureImage(image, auth, { pull: true });
      if (auth) await this.privateImages.recordPull(image, projectId, pulled.id);
    }
    return null;
  }

  private remember(projectId: string, image: string, refusal: string | null): void {
    if (this.count >= MOST_DECISIONS) {
      this.decided.clear();
      this.count = 0;
    }
    let ofProject = this.decided.get(projectId);
    if (!ofProject) this.decided.set(projectId, (ofProject = new Map()));
    if (!ofProject.has(image)) this.count += 1;
    ofProject.set(image, { until: Date.now() + DECISION_MS, refusal });
  }
}
