"""The first half of the flow, one package per stage: intake -> processing -> marking -> compiling.
Shared: models/ (tables and constraints), access/ (roles, scopes, permissions), storage and serving.
Nothing here imports the review app; review builds on this one."""
