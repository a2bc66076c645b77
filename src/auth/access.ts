import type { Principal, Project, User } from './types.js';

/** Who may do what with identity records. */
export const access = {
  manageUsers: (principal: Principal) => principal.admin,
  seeUser: (principal: Principal, user: User) => principal.admin || principal.userId === user.id,
  useProject: (principal: Principal, project: Project) =>
    principal.task
      ? principal.task.projectId === project.id
      : principal.admin || project.userId === principal.userId || project.sharedWith.includes(principal.userId),
  manageProject: (principal: Principal, project: Project) => principal.admin || project.userId === principal.userId,
};
