var C=Object.defineProperty;var d=(h,p)=>C(h,"name",{value:p,configurable:!0});const R=851,U=[851],L={6851:((h,p,s)=>{s.r(p),s.d(p,{runPolicyCheck:d(()=>w,"runPolicyCheck")});var g=s(57975),S=s.n(g),a=s(71922),O=s(91674),P=s(55966),v=s(68254),M=s(10631),A=s(96657);const m=`usage: agent-action policy check --tool NAME [--args JSON] [--server MCP_SERVER] [--annotations JSON] [--subagent NAME]
    [--mode default|auto_edit|yolo|plan] [--context action|interactive|headless]
    [--no-defaults] [--default-policy PATH]... [--workspace-policy PATH]... [--policy PATH]... [--admin-policy PATH]...
    [--json]`,D=`${m}

Which decision a tool call would get, and which rule gave it (file, line, tier, priority), with the
same engine the agent runs. Exit 0 when it decided, 42 for bad flags, 52 for a bad policy file.

  --tool NAME             the tool's name, e.g. run_shell_command, read_file, write_file
  --args JSON             the call's arguments as a JSON object, e.g. '{"command":"npm test"}'
  --server NAME           the MCP server the tool comes from
  --annotations JSON      the MCP tool's annotations, e.g. '{"readOnlyHint":true}'
  --subagent NAME         the subagent that makes the call
  --mode MODE             the approval mode (default: default)
  --context CONTEXT       whose defaults apply when no rule matches (default: action)
  --no-defaults           leave out the shipped default policies
  --default-policy PATH   a file or folder for the Default tier (repeatable); also --workspace-policy,
  --policy PATH           --policy (User tier) and --admin-policy (Admin tier)
  --json                  print {"decision", "rule", "reason"} as JSON
  -h, --help              print this help
`,$={default:"default",auto_edit:"autoEdit",autoEdit:"autoEdit",yolo:"yolo",plan:"plan"},T=["action","interactive","headless"],E=[["default-policy","default"],["workspace-policy","workspace"],["policy","user"],["admin-policy","admin"]];async function w(f,t,y=process.cwd()){let o;try{if(o=N(f),o==="help")return t.stdout(D),0;for(const[n,c]of E)(0,M.L)(`--${n}`,(o.tiers[c]??[]).filter(e=>typeof e=="string"),y)}catch(n){return t.stderr(`agent-action policy check: ${(0,a.bD)(n)}
${m}
`),42}try{const{engine:n,warnings:c}=await(0,P.RK)({context:o.context,tiers:o.tiers,useBuiltinDefaults:o.defaults});for(const i of c)t.stderr(`${(0,v.xy)(i)}
`);await n.prepare(o.query);const e=n.decide(o.query,o.mode);if(o.json){const i=e.rule&&{source:e.rule.source,line:e.rule.line,tier:e.rule.tier,priority:e.rule.priority};t.stdout(`${JSON.stringify({decision:e.decision,rule:i,reason:e.reason})}
`)}else{const i=e.rule?`rule: ${e.rule.source}${e.rule.line?`:${e.rule.line}`:""} (tier ${e.rule.tier}, priority ${(0,O.oU)(e.rule.priority)})`:`rule: none matched; the ${o.context} context's default applied`;t.stdout(`${e.decision}
${i}
reason: ${e.reason}
`)}return 0}catch(n){return t.stderr(`agent-action policy check: ${(0,a.Gy)(n)?(0,A.Uc)(n):(0,a.bD)(n)}
`),(0,a.Gy)(n)?n.exitCode:1}}d(w,"runPolicyCheck");function N(f){const{values:t,positionals:y}=(0,g.parseArgs)({args:f,strict:!0,allowPositionals:!0,options:{tool:{type:"string"},args:{type:"string"},server:{type:"string"},annotations:{type:"string"},subagent:{type:"string"},mode:{type:"string"},context:{type:"string"},"no-defaults":{type:"boolean"},"default-policy":{type:"string",multiple:!0},"workspace-policy":{type:"string",multiple:!0},policy:{type:"string",multiple:!0},"admin-policy":{type:"string",multiple:!0},json:{type:"boolean"},help:{type:"boolean",short:"h"}}});if(t.help)return"help";const o=d((l,u)=>new a.Yv("input",`--${l}: ${u}`,{site:{input:`--${l}`}}),"bad");if(y.length>0)throw new a.Yv("input",`unexpected argument "${y[0]}"`);if(!t.tool)throw o("tool","is required (the tool name, e.g. run_shell_command)");const n=d((l,u)=>{if(u===void 0)return;let r;try{r=JSON.parse(u)}catch(x){throw o(l,`is not JSON: ${(0,a.bD)(x)}`)}if(typeof r!="object"||r===null||Array.isArray(r))throw o(l,'must be a JSON object, e.g. {"command":"ls"}');return r},"jsonObject"),c=$[t.mode??"default"];if(!c)throw o("mode",`must be default, auto_edit, yolo or plan, not "${t.mode}"`);const e=t.context??"action";if(!T.includes(e))throw o("context",`must be action, interactive or headless, not "${t.context}"`);const i=n("annotations",t.annotations),j={toolName:t.tool,args:n("args",t.args)??{},...t.server!==void 0&&{mcpServer:t.server},...i&&{annotations:i},...t.subagent!==void 0&&{subagent:t.subagent}},_={};for(const[l,u]of E){const r=t[l];r&&r.length>0&&(_[u]=r)}return{query:j,mode:c,context:e,tiers:_,defaults:!t["no-defaults"],json:t.json===!0}}d(N,"parseFlags")})};export{R as id,U as ids,L as modules};
