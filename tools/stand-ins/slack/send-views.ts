import { postSigned, type SenderContext } from "./sender.js";
import { type Entered, type OpenView, stateValues } from "./views.js";

/** A person submits the modal the app opened for them (`view_submission`, signed, form-encoded). */

export interface SubmitViewArgs {
  userId: string;
  /** What the person entered, by block_id (a text, a chosen option's value, values, Unix seconds). */
  values: Entered;
  /** Default the person's newest open view. */
  viewId?: string;
  teamId?: string;
}

export interface Submission {
  status: number;
  /** The app's answer: `{response_action: "errors", errors}` keeps the view open. */
  answer: { response_action?: string; errors?: Record<string, string> } | null;
  view: OpenView;
}

export async function submitView(ctx: SenderContext, args: SubmitViewArgs): Promise<Submission> {
  const { state } = ctx;
  const open = state.views.current(args.userId, args.viewId);
  if (!open) throw new Error(`Slack stand-in: ${args.userId} has no open view`);
  const teamId = args.teamId ?? state.identity.teamId;
  const userName = state.user(args.userId)?.name ?? args.userId;
  const payload = {
    type: "view_submission",
    team: { id: teamId, domain: ctx.teamDomain },
    user: { id: args.userId, username: userName, name: userName, team_id: teamId },
    api_app_id: state.identity.appId,
    token: ctx.verificationToken,
    trigger_id: state.views.issueTrigger(args.userId),
    view: {
      ...open.view,
      id: open.id,
      team_id: teamId,
      app_id: state.identity.appId,
      hash: open.hash,
      state: { values: stateValues(open.view, args.values) },
    },
    response_urls: [],
    is_enterprise_install: false,
  };
  const body = new URLSearchParams([["payload", JSON.stringify(payload)]]).toString();
  const delivered = await postSigned(ctx, body, "application/x-www-form-urlencoded", {});
  let answer: Submission["answer"] = null;
  if (delivered.body.trim().startsWith("{")) {
    try {
      answer = JSON.parse(delivered.body) as Submission["answer"];
    } catch {
      answer = null;
    }
  }
  if (delivered.status === 200) {
    if (answer?.response_action === "errors") open.errors = answer.errors ?? {};
    else {
      open.errors = null;
      open.closed = true;
    }
  }
  return { status: delivered.status, answer, view: structuredClone(open) };
}
