-- Whether a script's argument `flag` enables the plain-message layout ('1').
local function plain_allowed(flag)
  return flag == '1'
end
