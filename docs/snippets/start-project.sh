npm init -y
npm pkg set type=module
