var R=Object.defineProperty;var i=(m,d)=>R(m,"name",{value:d,configurable:!0});const U=851,x=[851],I={10631:((m,d,o)=>{o.d(d,{L:i(()=>P,"L")});var y=o(73024),T=o.n(y),r=o(76760),D=o.n(r),O=o(71922);function P(_,M,E){return M.map(h=>{const c=(0,r.resolve)(E,h);if(!(0,y.statSync)(c,{throwIfNoEntry:!1}))throw new O.Yv("input",`${_} ${h}: not found${c===h?"":` (looked for ${c})`}`,{site:{input:_,file:c}});return c})}i(P,"resolveFlagPaths")}),6851:((m,d,o)=>{o.r(d),o.d(d,{runPolicyCheck:i(()=>N,"runPolicyCheck")});var y=o(57975),T=o.n(y),r=o(71922),D=o(78616),O=o(55966),P=o(68254),_=o(10631),M=o(96657);const E=`usage: agent-action policy check --tool NAME [--args JSON] [--server MCP_SERVER] [--annotations JSON] [--subagent NAME]
    [--mode default|auto_edit|yolo|plan] [--context action|interactive|headless]
    [--no-defaults] [--default-policy PATH]... [--workspace-policy PATH]... [--policy PATH]... [--admin-policy PATH]...
    [--json]`,h=`${E}

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
`,c={default:"default",auto_edit:"autoEdit",autoEdit:"autoEdit",yolo:"yolo",plan:"plan"},C=["action","interactive","headless"],A=[["default-policy","default"],["workspace-policy","workspace"],["policy","user"],["admin-policy","admin"]];async function N(v,t,g=process.cwd()){let n;try{if(n=j(v),n==="help")return t.stdout(h),0;for(const[s,p]of A)(0,_.L)(`--${s}`,(n.tiers[p]??[]).filter(e=>typeof e=="string"),g)}catch(s){return t.stderr(`agent-action policy check: ${(0,r.bD)(s)}
${E}
`),42}try{const{engine:s,warnings:p}=await(0,O.RK)({context:n.context,tiers:n.tiers,useBuiltinDefaults:n.defaults});for(const l of p)t.stderr(`${(0,P.xy)(l)}
`);const e=await s.decide(n.query,n.mode);if(n.json){const l=e.rule&&{source:e.rule.source,line:e.rule.line,tier:e.rule.tier,priority:e.rule.priority};t.stdout(`${JSON.stringify({decision:e.decision,rule:l,reason:e.reason})}
`)}else{const l=e.rule?`rule: ${e.rule.source}${e.rule.line?`:${e.rule.line}`:""} (tier ${e.rule.tier}, priority ${(0,D.oU)(e.rule.priority)})`:`rule: none matched; the ${n.context} context's default applied`;t.stdout(`${e.decision}
${l}
reason: ${e.reason}
`)}return 0}catch(s){return t.stderr(`agent-action policy check: ${(0,r.Gy)(s)?(0,M.Uc)(s):(0,r.bD)(s)}
`),(0,r.Gy)(s)?s.exitCode:1}}i(N,"runPolicyCheck");function j(v){const{values:t,positionals:g}=(0,y.parseArgs)({args:v,strict:!0,allowPositionals:!0,options:{tool:{type:"string"},args:{type:"string"},server:{type:"string"},annotations:{type:"string"},subagent:{type:"string"},mode:{type:"string"},context:{type:"string"},"no-defaults":{type:"boolean"},"default-policy":{type:"string",multiple:!0},"workspace-policy":{type:"string",multiple:!0},policy:{type:"string",multiple:!0},"admin-policy":{type:"string",multiple:!0},json:{type:"boolean"},help:{type:"boolean",short:"h"}}});if(t.help)return"help";const n=i((u,f)=>new r.Yv("input",`--${u}: ${f}`,{site:{input:`--${u}`}}),"bad");if(g.length>0)throw new r.Yv("input",`unexpected argument "${g[0]}"`);if(!t.tool)throw n("tool","is required (the tool name, e.g. run_shell_command)");const s=i((u,f)=>{if(f===void 0)return;let a;try{a=JSON.parse(f)}catch(L){throw n(u,`is not JSON: ${(0,r.bD)(L)}`)}if(typeof a!="object"||a===null||Array.isArray(a))throw n(u,'must be a JSON object, e.g. {"command":"ls"}');return a},"jsonObject"),p=c[t.mode??"default"];if(!p)throw n("mode",`must be default, auto_edit, yolo or plan, not "${t.mode}"`);const e=t.context??"action";if(!C.includes(e))throw n("context",`must be action, interactive or headless, not "${t.context}"`);const l=s("annotations",t.annotations),w={toolName:t.tool,args:s("args",t.args)??{},...t.server!==void 0&&{mcpServer:t.server},...l&&{annotations:l},...t.subagent!==void 0&&{subagent:t.subagent}},$={};for(const[u,f]of A){const a=t[u];a&&a.length>0&&($[f]=a)}return{query:w,mode:p,context:e,tiers:$,defaults:!t["no-defaults"],json:t.json===!0}}i(j,"parseFlags")})};export{U as id,x as ids,I as modules};
