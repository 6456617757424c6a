/**
 * The bubblewrap command line for one tool process. Everything here is a path dupin chose (its
 * temp dir, its config and env files, the tool env's KUBECONFIG); the model's argv only follows
 * the final `--`.
 */
export type Masks = {
  /** Directories replaced by an empty read-only tmpfs (/etc/dupin). */
  dirs: string[]
  /** Files replaced by /dev/null (the config file, env files). */
  files: string[]
}

export type BwrapPlan = {
  masks: Masks
  /** Files under a masked directory the tool still needs, read-only (KUBECONFIG in /etc/dupin, ~/.kube). */
  reexpose: string[]
  /** The writable host folder of this sandbox (a run's temp dir, a view's run area). */
  tempDir: string
  /** dupin's state folder (runs, spilled outputs), hidden so that tools see none of it but `tempDir`. */
  runsDir: string | null
  /** Extra writable paths an embedding application or an MCP server's `writable_paths` opted into. */
  writable: string[]
  /** The approved-writable view: the root is bound writable (the masks stay); otherwise read-only. */
  writableRoot?: boolean
  /** dupin's home folder, replaced by an empty private tmpfs (R5: shell histories, credential stores). */
  privateHome?: string | null
  cwd: string | undefined
  /** Running as root: bwrap keeps its capabilities for root unless told to drop them. */
  root: boolean
  /**
   * The sandbox of the helper (helper/run-ns.ts): it keeps every capability inside the sandbox's
   * user namespace to make each run's namespaces and mounts its /proc per run, so bwrap mounts
   * none (a fresh /proc cannot be mounted beside bwrap's, whose read-only covers are locked).
   * The helper hands no capability on to what it runs.
   */
  helper?: boolean
  flavor: BwrapFlavor
}

/** A private HOME lives in memory: bounded so that a tool cannot fill it. */
const HOME_TMPFS_BYTES = 64 * 1024 * 1024

/**
 * `private`: a fresh /proc of the tool's pid namespace, where dupin does not exist (but `ps` and
 * `top` see only the tool's own processes). `host`: the host's /proc, read-only; dupin's environ,
 * mem and fds are then closed only because dupin is non-dumpable and the tool holds no capability
 * outside its user namespace (root included).
 */
export type ProcView = "private" | "host"

/** The variant of the sandbox this host allows, found by the startup probe. */
export type BwrapFlavor = {
  proc: ProcView
  /**
   * bwrap sets max_user_namespaces to 0 inside the sandbox, which needs a writable /proc/sys
   * (not under systemd's ProtectKernelTunables=). Without it a tool may create a nested user
   * namespace; the masks and the read-only root stay locked there all the same.
   */
  disableUserns: boolean
}

/** Namespace and lifetime flags shared by the startup probe and every run. */
export function bwrapBaseArgs(
  root: boolean,
  flavor: BwrapFlavor,
  writableRoot = false,
  helper = false,
): string[] {
  return [
    // Network is shared on purpose: kubectl, helm and curl must reach the cluster and the web.
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    ...(flavor.disableUserns ? ["--disable-userns"] : []),
    "--die-with-parent",
    // No controlling terminal to push input into (TIOCSTI).
    "--new-session",
    ...(helper ? ["--cap-add", "ALL"] : root ? ["--cap-drop", "ALL"] : []),
    writableRoot ? "--bind" : "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    // A fresh /proc of the new pid namespace: dupin's /proc/<pid>/environ and mem do not exist here.
    ...(flavor.proc === "private" && !helper ? ["--proc", "/proc"] : []),
  ]
}

export function bwrapArgs(bwrap: string, plan: BwrapPlan): string[] {
  const args = [bwrap, ...bwrapBaseArgs(plan.root, plan.flavor, plan.writableRoot, plan.helper)]
  // /dev/shm is in bwrap's own /dev tmpfs: bound it so it cannot eat the host's memory.
  args.push("--size", String(64 * 1024 * 1024), "--tmpfs", "/dev/shm")
  if (plan.privateHome) args.push("--size", String(HOME_TMPFS_BYTES), "--tmpfs", plan.privateHome)
  for (const dir of plan.masks.dirs) args.push("--tmpfs", dir)
  for (const file of plan.reexpose) args.push("--ro-bind", file, file)
  for (const dir of plan.masks.dirs) args.push("--remount-ro", dir)
  // A file inside a masked directory is hidden already, and the read-only tmpfs has no room for
  // its mount point.
  const inMaskedDir = (file: string) => plan.masks.dirs.some((dir) => file.startsWith(`${dir}/`))
  for (const file of plan.masks.files.filter((f) => !inMaskedDir(f)))
    args.push("--ro-bind", "/dev/null", file)
  if (plan.runsDir) args.push("--tmpfs", plan.runsDir)
  args.push("--bind", plan.tempDir, plan.tempDir)
  for (const path of plan.writable) args.push("--bind", path, path)
  if (plan.cwd) args.push("--chdir", plan.cwd)
  args.push("--")
  return args
}
